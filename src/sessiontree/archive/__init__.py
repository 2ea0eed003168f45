"""What spans many sessions: the catalog of a sessions folder, the search index, usage totals."""
