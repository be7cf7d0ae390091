"""Rooms and joining: the home page, new tables and their options, table codes, the room
before the start, the lists of turn-based tables."""
