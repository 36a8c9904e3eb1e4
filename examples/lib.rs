//! Shared pieces of the example servers.
