import Fastify from "fastify";

const fastify = Fastify({ logger: true });

fastify.get("/ping", ping);
fastify.route({
  method: ["GET", "POST"],
  url: "/echo",
  handler: echo,
});

async function ping() {
  return "pong";
}

async function echo() {
  return "echo";
}
