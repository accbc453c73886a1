"""The referee bot: channel adapters (email, Discord), the application core and storage."""
