"""Accounts and people: signing in, the profile, devices and address, one's own data and
its deletion, the people one played with, notices in the browser."""
