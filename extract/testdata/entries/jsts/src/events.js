const EventEmitter = require("node:events");
const { WebSocketServer } = require("ws");
const { Kafka } = require("kafkajs");
const grpc = require("@grpc/grpc-js");

const bus = new EventEmitter();
bus.on("order.created", onOrder);

const wss = new WebSocketServer({ port: 8080, path: "/live" });
wss.on("connection", onConnection);

const kafka = new Kafka({ brokers: ["k:9092"] });
const consumer = kafka.consumer({ groupId: "g" });

async function start() {
  await consumer.subscribe({ topic: "payments" });
  await consumer.run({
    eachMessage: async ({ message }) => {
      handlePayment(message);
    },
  });
}

const server = new grpc.Server();
server.addService(proto.Greeter.service, { sayHello: sayHello });

const other = { on() {} };
other.on("ignored", onOrder);

function onOrder(order) {}

function onConnection(socket) {}

function handlePayment(m) {}

function sayHello(call, cb) {}
