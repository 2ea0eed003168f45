"""The store stage of sessiontree."""
