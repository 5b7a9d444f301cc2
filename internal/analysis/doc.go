// Package analysis implements the dimensionality reduction methods of the
// product: feature-space reductions (a projection P of the features) and
// label-space reductions (a projection V of the labels), each by its id as
// listed by Methods.
//
// Every method is fitted by Fit on an Input (features X, labels Y) with
// Params, and gives a Model: the directions (all of them, best first), the
// centring means, every eigenvalue in descending order, the chosen
// dimension and the energy it keeps, and the training rows projected. A
// Model projects new rows with Transform and can be cut to another
// dimension with WithDim, so that a curve over d needs one fit.
//
// One shared core does the work the methods have in common, written once:
// the pass over the rows that forms the sufficient statistics (column means,
// XcᵀXc, XcᵀY from the sparse 0/1 label rows, YcᵀYc), the symmetric,
// generalised and low-rank eigen-solvers, the choice of d from d or thr, and
// the sign convention (the largest-magnitude entry of every direction is
// positive). No method forms an N×N matrix where the algebra avoids it; the
// few that need pairwise structure say in their doc comment, and in their
// error, the largest N they accept.
//
// Notation follows shared/METHODS.md: N rows, D features, q labels; Xc and
// Yc are X and Y with their column means removed.
//
// The package knows nothing of HTTP or jobs. Long fits take a context,
// checked between stages and inside the row pass, and a Progress callback.
package analysis
