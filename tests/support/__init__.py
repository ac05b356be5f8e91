"""Test helpers shared across test packages (loopback servers, builders)."""
