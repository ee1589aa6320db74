__version__ = "0.1.0"
"""The version of the tawla-engine distribution (read by the build from this file)."""
