// Package grpcsvc serves the Greeter service.
package grpcsvc

import (
	"context"

	"example.com/entry/grpcsvc/pb"
	"google.golang.org/grpc"
)

type greeter struct {
	pb.UnimplementedGreeterServer
}

func (greeter) SayHello(ctx context.Context, in *pb.HelloRequest) (*pb.HelloReply, error) {
	return &pb.HelloReply{}, nil
}

// Serve registers the service.
func Serve() *grpc.Server {
	s := grpc.NewServer()
	pb.RegisterGreeterServer(s, &greeter{})
	return s
}
