# Try it: the statement's hand example. Runs after your code; nothing is graded.
merges = learn_bpe("hug pug pun bun hugs", 10)
print("merges ", merges)  # [(117, 103), (32, 112), (104, 256), (117, 110)]

ids = encode("hugs bun", merges)
print("ids    ", ids)  # [258, 115, 32, 98, 259]
print("decoded", repr(decode(ids, merges)))  # 'hugs bun'

# Bytes, not characters: 'é' is two bytes, and a token may hold only one of them.
accents = learn_bpe("né né", 5)
print("accents", accents)  # [(110, 195), (256, 169)]: 'n' + the first byte of 'é', then the second byte
print(repr(decode([256], accents)), repr(decode([256, 169], accents)))  # 'n\ufffd' and 'né'
