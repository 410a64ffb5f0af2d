// Package pb is what protoc-gen-go-grpc generates for a Greeter service,
// written by hand with plain request and reply types.
package pb

import (
	"context"

	"google.golang.org/grpc"
)

// HelloRequest is the request.
type HelloRequest struct{ Name string }

// HelloReply is the reply.
type HelloReply struct{ Message string }

const (
	Greeter_SayHello_FullMethodName = "/helloworld.Greeter/SayHello"
	Greeter_SayBye_FullMethodName   = "/helloworld.Greeter/SayBye"
)

// GreeterServer is the server API for Greeter service.
type GreeterServer interface {
	SayHello(context.Context, *HelloRequest) (*HelloReply, error)
	SayBye(context.Context, *HelloRequest) (*HelloReply, error)
	mustEmbedUnimplementedGreeterServer()
}

// UnimplementedGreeterServer must be embedded.
type UnimplementedGreeterServer struct{}

func (UnimplementedGreeterServer) SayHello(context.Context, *HelloRequest) (*HelloReply, error) {
	return nil, nil
}
func (UnimplementedGreeterServer) SayBye(context.Context, *HelloRequest) (*HelloReply, error) {
	return nil, nil
}
func (UnimplementedGreeterServer) mustEmbedUnimplementedGreeterServer() {}

// RegisterGreeterServer registers srv on s.
func RegisterGreeterServer(s grpc.ServiceRegistrar, srv GreeterServer) {
	s.RegisterService(&Greeter_ServiceDesc, srv)
}

// Greeter_ServiceDesc describes the service.
var Greeter_ServiceDesc = grpc.ServiceDesc{
	ServiceName: "helloworld.Greeter",
	HandlerType: (*GreeterServer)(nil),
	Streams:     []grpc.StreamDesc{},
	Metadata:    "helloworld.proto",
}
