/* The table in motion (client only): cards slide, tricks go to their winner, the deal fans in. */
