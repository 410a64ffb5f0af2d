from concurrent import futures

import grpc
from mcp.server.fastmcp import FastMCP

import helloworld_pb2_grpc

mcp = FastMCP("demo")


@mcp.tool()
def add(a: int, b: int) -> int:
    return a + b


@mcp.tool(name="echo_text")
def echo(text: str) -> str:
    return text


@mcp.tool
def ping() -> str:
    return "pong"


class Greeter(helloworld_pb2_grpc.GreeterServicer):
    def SayHello(self, request, context):
        return None


def serve():
    server = grpc.server(futures.ThreadPoolExecutor())
    helloworld_pb2_grpc.add_GreeterServicer_to_server(Greeter(), server)
    server.start()
