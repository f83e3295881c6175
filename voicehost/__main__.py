"""Allow ``python -m voicehost``."""

import sys

from voicehost.cli import main

sys.exit(main())
