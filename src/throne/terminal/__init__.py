"""Terminal front ends: play and replay in a text console."""
