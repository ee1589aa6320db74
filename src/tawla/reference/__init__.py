"""The reference engine: RULES.md written for clarity; the oracle the fast engine is diffed against."""
