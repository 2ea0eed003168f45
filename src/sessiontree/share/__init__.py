"""The share stage of sessiontree."""
