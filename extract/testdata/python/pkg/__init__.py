"""A fixture package."""
