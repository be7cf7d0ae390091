"""Circles on the site: a friend group's home, its game nights and its weeks of duplicate boards."""
