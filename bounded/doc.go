// Package bounded reads the files and streams opcert is given (scenario
// files, manifests, explain's input, the report.json beside a timeline)
// with a size limit, and gives up as soon as its context is done.
//
// Each reader states its limit; more than the limit is refused with an
// error naming the input, the limit and what to do (the commands exit 2
// for it). A path that is not a regular file (a FIFO, a device such as
// /dev/zero, a socket, a directory; a symbolic link is followed) is
// refused before it is opened: opening a FIFO blocks until something
// writes to it, and a device may never end. Standard input, which may be
// a pipe, is read with the limit and abandoned when the context is done
// (Ctrl-C), so that a read that blocks does not hold the command.
package bounded
