package analysis

// CiteKey is the BibTeX key the tables for papers give m's paper (Paper):
// the first author and year where Paper names them, else the method's
// family. Methods from one paper share a key; it is empty for an unknown
// method.
func (m Method) CiteKey() string {
	switch m.ID {
	case "pca":
		return "jolliffe2002pca"
	case "mddmp", "kmddm":
		return "zhang2008mddm"
	case "kpca":
		return "scholkopf1998kpca"
	case "mddmf", "mvmd":
		return "mvmd"
	case "mlsi":
		return "yu2005mlsi"
	case "cca", "occa", "cplst", "kcplst":
		return "chen2012cplst"
	case "lpp":
		return "he2003lpp"
	case "lda":
		return "fisher1936lda"
	case "mlda":
		return "wang2010mlda"
	case "ge-hamming", "ge-euclid-y", "ge-euclid-x", "ge-gh":
		return "graphembedding"
	case "sdem":
		return "jia2023sdem"
	case "mds":
		return "torgerson1952mds"
	case "plst":
		return "tai2012plst"
	case "mlcssp":
		return "bi2013mlcssp"
	case "faie":
		return "lin2014faie"
	case "rembrandt":
		return "mineiro2015rembrandt"
	case "leml":
		return "yu2014leml"
	}
	return ""
}
