import express, { Router } from "express";
import { getUser, listUsers } from "./handlers";
import { metrics } from "prom-middleware";

const app = express();
const users = Router();

users.get("/", listUsers);
users.get("/:id", getUser);
app.use("/users", users);

app.post("/login", (req, res) => {
  res.send("ok");
});
app.use("/health", health);
app.route("/items").get(listItems).put(saveItem);

function health(req: any, res: any) {
  res.send("up");
}

function listItems(req: any, res: any) {}

function saveItem(req: any, res: any) {}

const map = new Map();
map.get("/not-a-route");

export function mount(server: express.Express) {
  server.get("/inside", function () {});
}

const METRICS = "/metrics";
app.get(METRICS, metrics);
