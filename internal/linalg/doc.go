// Package linalg holds the dense kernels the analysis spends its time in,
// written for speed in pure Go: the symmetric rank-k update XᵀX and the
// symmetric eigen-solvers. It knows nothing of methods, data sets or jobs;
// every function takes a context where the work is long, and is checked
// against gonum's reference routines and against numpy.
package linalg
