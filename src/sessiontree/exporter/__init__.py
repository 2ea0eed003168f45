"""The exporter stage of sessiontree."""
