"""pinochle_web: a local web app over the toolkit: play at a table, replay hands, read arena runs.

It sits on top of :mod:`agents` and :mod:`pinochle_env` and is imported by neither; it never
imports the trainer. :mod:`.app` is the Starlette application (pages, assets and the JSON API),
:mod:`.cli` the ``pinochle-web`` command and :mod:`.settings` what it passes on; :mod:`.tables`
plays the live tables, :mod:`.present` turns a game into what the page draws, :mod:`.replay`
replays hand records and asks checkpoints about them, :mod:`.sources` reads records and arena
results, and :mod:`.catalogue` keeps to what the command line named. The front end (HTML, CSS, JavaScript, cards drawn
as SVG) is in ``static/`` and needs no build step.
"""
