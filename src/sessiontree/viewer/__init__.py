"""The viewer stage of sessiontree."""
