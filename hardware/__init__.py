"""Device adapters (cameras, MRZ reading, scanners, printers) and their fakes."""
