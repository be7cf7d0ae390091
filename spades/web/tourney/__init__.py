"""Tourneys on the site: the list, a tourney's page and its live part, the director's actions."""
