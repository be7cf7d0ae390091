"""The table: its page and moves, its socket and hub, what a seat is drawn from, and talk at it."""
