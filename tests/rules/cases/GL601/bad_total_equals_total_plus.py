total_loss = 0.0
for batch in loader:
    outputs = model(**batch)
    loss = outputs.loss
    loss.backward()
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    total_loss = total_loss + loss  # expect: GL601
print("average loss", total_loss / len(loader))
