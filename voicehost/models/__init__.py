"""Speech models: where they live, the catalog, download, install and verification."""
