"""The pages in the browser: a small Starlette app with server-sent events, served by uvicorn (docs/tournament.md).

Public: the standings (for a projector) and, with its token, the streaming overlay. Everything else — each
table's live view, the director's dashboard and its actions — needs the director's login.
"""
