// Command buildtags calls functions that have a build-excluded twin.
package main

func main() {
	println(platform())
	h := Handle{}
	h.Close()
}
