"""The rules engines: the only place where the rules of each game live."""
