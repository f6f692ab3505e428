"""``python -m tepad demo`` runs the demo; other commands live in tepad.cli."""
import sys

from .cli import main

sys.exit(main())
