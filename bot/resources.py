"""Where the project's non-Python resources live (templates, migrations)."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
TEMPLATES_DIR = PROJECT_ROOT / "templates"
MIGRATIONS_DIR = PROJECT_ROOT / "migrations"
