"""blinkc's typed intermediate representation (see nodes.py)."""
