const Router = require("@koa/router");

const router = new Router({ prefix: "/api" });

router.get("/books", listBooks);
router.del("/books/:id", async (ctx) => {
  ctx.status = 204;
});

async function listBooks(ctx) {
  ctx.body = [];
}

module.exports = router;
