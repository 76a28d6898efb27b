"""JSON routes of the API, one module per area."""
