"""What spans many sessions: the collection (folders, keys, filters, cache dir), catalog, search, usage."""
