"""Helpers shared by the test modules (plain functions, constants and small classes)."""
