"""Pages for people: the bracket (HTML and SVG), a table to watch, the landing page.

Pure rendering on the standard library: the route module (`functions.api.routes.pages`)
reads the data and hands plain values in; nothing here does I/O.
"""
