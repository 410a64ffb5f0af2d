import fastapi
from fastapi import APIRouter

app = fastapi.FastAPI()
router = APIRouter(prefix="/items")


@router.get("/{item_id}")
async def read_item(item_id: int):
    return item_id


@app.post("/orders")
def create_order():
    return {}


@app.api_route("/health", methods=["GET", "HEAD"])
def health():
    return "ok"


@app.websocket("/ws")
async def ws(websocket):
    pass


app.include_router(router, prefix="/api")


def make_app():
    inner = fastapi.FastAPI()

    @inner.get("/inner")
    def inner_view():
        return 1

    return inner
