"""The web board's "open a photo": ``POST /api/photo`` with a picture's bytes as the body
answers the position read from it (:func:`arena.photo.read.read_board`) for the page to
show over the picture and let the person correct; with ``?corners=X,Y;X,Y;X,Y;X,Y&size=N``
(or ``CxR``) ``&layout=points|cells`` it is read on that grid, set by hand
(:class:`arena.photo.hand.HandGrid`). A picture that cannot be read is answered 400 with
the reason, and a server without the ``photo`` extra says so (501).
"""

from __future__ import annotations

import asyncio
import importlib.util

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

__all__ = ["MAX_PHOTO_BYTES", "PHOTO_ROUTES"]

#: Largest picture accepted (a phone's JPEG is 2 to 8 MB).
MAX_PHOTO_BYTES = 40 * 2**20


async def read_photo(request: Request) -> Response:
    """The position in the picture sent as the request's body."""
    if importlib.util.find_spec("cv2") is None:
        return JSONResponse({"error": "this server cannot read pictures: install the photo "
                                      "extra (pip install -e '.[photo]') and restart it"},
                            status_code=501)
    from arena.photo.errors import PhotoError
    from arena.photo.hand import HandGrid
    from arena.photo.read import read_board

    data = await request.body()
    if len(data) > MAX_PHOTO_BYTES:
        return JSONResponse({"error": f"the picture has {len(data) // 2**20} MiB; send one "
                                      f"of at most {MAX_PHOTO_BYTES // 2**20} MiB"},
                            status_code=413)
    query = request.query_params
    try:
        hand = None
        if "corners" in query:
            hand = HandGrid.parse(query["corners"], query.get("size", ""),
                                  query.get("layout", "points"))
        reading = await asyncio.to_thread(read_board, data, hand=hand)
    except PhotoError as exc:
        return JSONResponse({"error": f"no position read from the picture: {exc}"},
                            status_code=400)
    return JSONResponse(reading.to_json())


PHOTO_ROUTES = [Route("/api/photo", read_photo, methods=["POST"])]
