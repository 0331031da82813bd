import torch


def train(loader, model, criterion, optimizer, optimizer_st, scheduler, config):
    """A TTS trainer: the decoder and a separately trained stop-token net each step their own
    optimizer; the Noam schedule advances at the top of every iteration."""
    model.train()
    for step, (text, mel, stop_targets) in enumerate(loader):
        optimizer.zero_grad()
        if optimizer_st:
            optimizer_st.zero_grad()
        decoder_out, postnet_out, stop_tokens = model(text, mel)
        loss, stop_loss = criterion(postnet_out, decoder_out, mel, stop_tokens, stop_targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.decoder.parameters(), config.grad_clip)
        optimizer.step()
        if optimizer_st:
            stop_loss.backward()
            torch.nn.utils.clip_grad_norm_(model.stopnet.parameters(), 1.0)
            optimizer_st.step()
        if config.noam_schedule:
            scheduler.step()  # expect: GL106


def main(model, loader, criterion, config):
    optimizer = torch.optim.Adam(model.decoder.parameters(), lr=config.lr)
    optimizer_st = torch.optim.Adam(model.stopnet.parameters(), lr=config.lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min((s + 1) ** -0.5, (s + 1) * 4000 ** -1.5))
    train(loader, model, criterion, optimizer, optimizer_st, scheduler, config)
