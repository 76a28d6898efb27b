"""Engine speed measurements behind `throne bench`."""
