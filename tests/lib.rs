//! Shared helpers for the mrtr test suite.
