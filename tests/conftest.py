import os
import sys
from pathlib import Path

# Pages and their tracebacks use paths relative to the repository root.
os.chdir(Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(Path(__file__).resolve().parent))
