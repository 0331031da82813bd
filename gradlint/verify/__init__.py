"""`gradlint verify`: run each rule's fixtures on torch and check what its fix changes.

Nothing here imports torch at import time; only the runner (a child process) and the command
body do.
"""
