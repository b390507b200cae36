"""Fish in the web view: its table as JSON, the lines that narrate a game, and ``drawing.js``, which draws it."""
