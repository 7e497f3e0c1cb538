// bbolt-check: what `bbolt check PATH` does (bbolt's cmd/bbolt CheckCommand): open read-only, tx.Check(), report.
package main

import (
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"
)

func main() {
	db, err := bolt.Open(os.Args[1], 0600, &bolt.Options{ReadOnly: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer db.Close()
	n := 0
	err = db.View(func(tx *bolt.Tx) error {
		for e := range tx.Check() {
			fmt.Println(e)
			n++
		}
		return nil
	})
	if err != nil || n > 0 {
		fmt.Printf("%d errors found\n", n)
		os.Exit(1)
	}
	fmt.Println("OK")
}
