// Command a imports the util package of its own module, example.com/m.
package main

import "example.com/m/util"

func main() {
	util.Do()
	util.New().Close()
}
