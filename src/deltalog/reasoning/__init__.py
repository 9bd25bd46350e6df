"""What the algorithm layer (algorithms/) and the modules (modules/) share, below both: the reasoning
state and statistics (context.py), one update in progress (update.py) and its scratch relations (workspace.py)."""
