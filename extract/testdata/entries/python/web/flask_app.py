from flask import Flask, Blueprint

from . import views

app = Flask(__name__)
bp = Blueprint("admin", __name__, url_prefix="/admin")


@app.route("/")
def index():
    return "hi"


@app.route("/login", methods=["GET", "POST"])
def login():
    return "login"


@bp.get("/users")
def users():
    return []


app.add_url_rule("/about", view_func=views.about)
app.add_url_rule("/ping", view_func=lambda: "pong")
app.register_blueprint(bp)


def route(path):  # not an app: a local decorator with a route-like name
    return lambda f: f


@route("/nothing")
def nothing():
    pass


class ItemView:
    @classmethod
    def as_view(cls, name):
        return cls


app.add_url_rule("/items", view_func=ItemView.as_view("items"))
