package embed

// WordRank returns a word's frequency rank in the built-in word table
// (0 for the most frequent word of GloVe's corpus), or ok false for a word
// the table does not have. The rank stands in for a word's rarity where no
// corpus statistics are at hand: the words of software work the table adds
// to GloVe's 40,000 rank after them.
func WordRank(w string) (rank int, ok bool) {
	i := words().lookup(w)
	return i, i >= 0
}
