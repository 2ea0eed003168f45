"""The archive that keeps every session: encrypted immutable objects and a manifest per machine in a store."""
