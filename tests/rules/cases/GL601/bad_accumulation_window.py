accum = 4
window_loss = 0.0
for i, batch in enumerate(loader):
    loss = model(**batch).loss / accum
    loss.backward()
    window_loss += loss  # expect: GL601
    if (i + 1) % accum == 0:  # expect: GL205
        optimizer.step()
        optimizer.zero_grad()
        print(f"update {(i + 1) // accum}: loss {window_loss:.4f}")
        window_loss = 0.0
